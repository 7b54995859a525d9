package io.delayqueue.client.spring;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.Map;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;

/** The methods of a bean carrying an annotation, each made callable on the bean itself (its proxy, if any). */
final class AnnotatedMethods {
    private AnnotatedMethods() {}

    static <A extends Annotation> Map<Method, A> of(Object bean, Class<A> annotation) {
        Class<?> target = AopUtils.getTargetClass(bean);
        Map<Method, A> found = MethodIntrospector.selectMethods(target, (MethodIntrospector.MetadataLookup<A>)
                method -> AnnotatedElementUtils.findMergedAnnotation(method, annotation));
        Map<Method, A> callable = new java.util.LinkedHashMap<>();
        found.forEach((method, a) -> {
            Method invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
            invocable.setAccessible(true);
            callable.put(invocable, a);
        });
        return callable;
    }

    /** What a handler method threw, unwrapped from reflection's wrapper. */
    static Exception thrownBy(java.lang.reflect.InvocationTargetException e) {
        Throwable cause = e.getCause();
        if (cause instanceof Error error) {
            throw error;
        }
        return cause instanceof Exception exception ? exception : e;
    }

    static String describe(Object bean, Method method) {
        return AopUtils.getTargetClass(bean).getName() + "." + method.getName();
    }
}
